import { transaction } from '../../server/src/database/transaction';
import { outageAnswer } from '../../server/src/http/outages';

/**
 * A stand-in for Strapi's `db.transaction` over knex: it hands `work` a transaction whose
 * executionPromise settles as knex's would (rejected with the error that ended it, or resolved).
 */
function strapiWith(ended: Error | null) {
  const executionPromise = ended ? Promise.reject(ended) : Promise.resolve();
  executionPromise.catch(() => undefined);
  const trx = Object.assign(() => undefined, { executionPromise });
  return { db: { transaction: (cb: (context: { trx: unknown }) => Promise<unknown>) => cb({ trx }) } } as never;
}

const alreadyComplete = () => new Error('Transaction query already complete, run with DEBUG=knex:tx for more info');
const lost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });

test('a query refused because the connection died under BEGIN fails with that error as its cause: an outage, 503', async () => {
  const failure = await transaction(strapiWith(lost()), async () => {
    throw alreadyComplete();
  }).catch((error: Error & { cause?: Error }) => error);
  expect(failure.message).toMatch(/already complete/);
  expect(failure.cause?.message).toBe('Connection terminated unexpectedly');
  expect(outageAnswer(failure)?.status).toBe(503);
});

test('without the cause, the same message is a bug (500): knex says nothing of an outage', () => {
  expect(outageAnswer(alreadyComplete())).toBeNull();
});

test('other errors, and a transaction that did not end underneath, pass through as they are', async () => {
  const other = new Error('duplicate key');
  await expect(transaction(strapiWith(lost()), async () => Promise.reject(other))).rejects.toBe(other);
  const refused = await transaction(strapiWith(null), async () => {
    throw alreadyComplete();
  }).catch((error: Error & { cause?: unknown }) => error);
  expect(refused.cause).toBeUndefined();
  await expect(transaction(strapiWith(null), async () => 42)).resolves.toBe(42);
});
