/** The pagination object of Document 1, and the offset it implies. */
export interface Pagination {
  page: number;
  limit: number;
  total: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export interface PageRequest {
  page: number;
  limit: number;
}

export const offsetOf = ({ page, limit }: PageRequest): number => (page - 1) * limit;

export function pagination({ page, limit }: PageRequest, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 };
}
