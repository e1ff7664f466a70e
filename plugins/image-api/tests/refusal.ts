/** What an ApiError refusal says (status, code, message), or a failure if nothing was refused. */
export async function refusal(run: Promise<unknown> | (() => unknown)) {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (error: any) {
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error('expected a refusal');
}
