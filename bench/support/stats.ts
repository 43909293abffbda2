/** The `p`-th percentile (0 to 100) of `values` by nearest rank: a value that was measured, never one made up between two. */
export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
