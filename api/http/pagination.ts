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

/**
 * The deepest page a list serves: an OFFSET scan reads and discards every row before the page, so an unbounded
 * page lets one request make PostgreSQL walk a whole table. 1,000 pages of up to 100 items reach 100,000 rows;
 * beyond that, narrow the list with its filters (dates, status). A larger page is a 400 validation error.
 */
export const MAX_PAGE = 1000;

export const offsetOf = ({ page, limit }: PageRequest): number => (page - 1) * limit;

export function pagination({ page, limit }: PageRequest, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, total_pages: totalPages, has_next: page < totalPages, has_prev: page > 1 };
}
