export type Pagination = { page: number; per_page: number; total: number; total_pages: number; has_next: boolean; has_prev: boolean };

export function pagination(page: number, perPage: number, total: number): Pagination {
  const totalPages = Math.ceil(total / perPage);
  return { page, per_page: perPage, total, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 };
}

export const offsetOf = (page: number, perPage: number) => (page - 1) * perPage;
