import type { Query, ReadCollection } from './ports/read-store';

export type Pagination = {
  page: number;
  per_page: number;
  total: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
};

export function pagination(page: number, perPage: number, total: number): Pagination {
  const totalPages = Math.ceil(total / perPage);
  return { page, per_page: perPage, total, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 };
}

export const offsetOf = (page: number, perPage: number) => (page - 1) * perPage;

/** One page of a filtered list, newest first unless told otherwise, with its pagination. */
export async function findPage<T>(
  collection: ReadCollection<T>,
  filter: Omit<Query, 'sort' | 'offset' | 'limit'>,
  page: { page: number; limit: number },
  sort: NonNullable<Query['sort']> = { field: 'createdAt', order: 'desc' },
): Promise<{ docs: T[]; pagination: Pagination }> {
  const [docs, total] = await Promise.all([
    collection.find({ ...filter, sort, offset: offsetOf(page.page, page.limit), limit: page.limit }),
    collection.count(filter),
  ]);
  return { docs, pagination: pagination(page.page, page.limit, total) };
}
