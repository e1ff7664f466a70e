/** The review's queue pages: what a query may ask, and what it gets when it asks too much. */
import { pageOf } from '../../server/src/moderation/review';
import { QUEUE_PAGE_SIZE, QUEUE_PAGE_SIZE_MAX } from '../../shared/contracts/review';

test.each([
  [{}, { page: 1, pageSize: QUEUE_PAGE_SIZE }],
  [{ page: '3', pageSize: '50' }, { page: 3, pageSize: 50 }],
  [{ page: '0', pageSize: '0' }, { page: 1, pageSize: QUEUE_PAGE_SIZE }],
  [{ page: '-2', pageSize: String(QUEUE_PAGE_SIZE_MAX + 1) }, { page: 1, pageSize: QUEUE_PAGE_SIZE }],
  [{ page: '1.5', pageSize: 'ten' }, { page: 1, pageSize: QUEUE_PAGE_SIZE }],
  [{ page: ['2', '3'], pageSize: String(QUEUE_PAGE_SIZE_MAX) }, { page: 1, pageSize: QUEUE_PAGE_SIZE_MAX }],
  [{ page: '99999999999' }, { page: 1, pageSize: QUEUE_PAGE_SIZE }],
])('%j → %j', (query, expected) => {
  expect(pageOf(query)).toEqual(expected);
});
