import { expect } from 'chai';
import { offsetOf, pagination } from '../../api/http/pagination';

describe('api/http/pagination', () => {
  it('total_pages is ceil(total / limit)', () => {
    expect(pagination({ page: 1, limit: 2 }, 3).total_pages).to.equal(2);
    expect(pagination({ page: 1, limit: 2 }, 4).total_pages).to.equal(2);
    expect(pagination({ page: 1, limit: 20 }, 1).total_pages).to.equal(1);
    expect(pagination({ page: 1, limit: 100 }, 101).total_pages).to.equal(2);
  });

  it('the first of several pages has a next page and no previous one', () => {
    expect(pagination({ page: 1, limit: 2 }, 3)).to.deep.equal({
      page: 1,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: true,
      has_prev: false,
    });
  });

  it('a middle page has both neighbours', () => {
    expect(pagination({ page: 2, limit: 1 }, 3)).to.include({ has_next: true, has_prev: true });
  });

  it('the last page has a previous page and no next one', () => {
    expect(pagination({ page: 2, limit: 2 }, 3)).to.deep.equal({
      page: 2,
      limit: 2,
      total: 3,
      total_pages: 2,
      has_next: false,
      has_prev: true,
    });
    expect(pagination({ page: 2, limit: 2 }, 4)).to.include({ total_pages: 2, has_next: false, has_prev: true });
  });

  it('a single page has no neighbours', () => {
    expect(pagination({ page: 1, limit: 20 }, 5)).to.include({ total_pages: 1, has_next: false, has_prev: false });
  });

  it('total 0 gives total_pages 0 and no neighbours', () => {
    expect(pagination({ page: 1, limit: 20 }, 0)).to.deep.equal({
      page: 1,
      limit: 20,
      total: 0,
      total_pages: 0,
      has_next: false,
      has_prev: false,
    });
  });

  it('a page past the end has no next page but a previous one', () => {
    expect(pagination({ page: 5, limit: 2 }, 3)).to.include({ total_pages: 2, has_next: false, has_prev: true });
    expect(pagination({ page: 2, limit: 20 }, 0)).to.include({ has_next: false, has_prev: true });
  });

  it('offsetOf skips (page - 1) * limit items', () => {
    expect(offsetOf({ page: 1, limit: 20 })).to.equal(0);
    expect(offsetOf({ page: 2, limit: 2 })).to.equal(2);
    expect(offsetOf({ page: 4, limit: 25 })).to.equal(75);
  });
});
