/**
 * Promise.all that waits for every operation to finish before failing. Image operations read the
 * received bytes, whose buffer goes back to a pool when the request ends (see http/buffer-pool.ts): none
 * may still be running by then, not even after another one failed.
 */
export async function settleAll<T extends readonly unknown[]>(operations: [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const results = await Promise.allSettled(operations);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
