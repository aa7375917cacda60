import { ApiError, type ErrorCode } from '../../shared/http/errors';

/** The ApiError a promise rejects with (fails the test if it resolves or throws something else). */
export async function rejection(p: Promise<unknown>, code: ErrorCode): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(code);
  return err as ApiError;
}
