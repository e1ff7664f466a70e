/**
 * imgproxy's URL signature (docs.imgproxy.net "Signing the URL"): URL-safe base64,
 * unpadded, of HMAC-SHA256 keyed with the key's bytes, over the salt's bytes followed by the path after
 * the signature segment. Key and salt are hex (`transformKey`, `transformSalt`).
 */
import crypto from 'crypto';

export interface SignatureSecrets {
  key: Buffer;
  salt: Buffer;
}

export const signatureSecrets = (keyHex: string, saltHex: string): SignatureSecrets => ({
  key: Buffer.from(keyHex, 'hex'),
  salt: Buffer.from(saltHex, 'hex'),
});

export function sign({ key, salt }: SignatureSecrets, signedPath: string): string {
  return crypto.createHmac('sha256', key).update(salt).update(signedPath).digest('base64url');
}

/** Compared in constant time, so a wrong signature says nothing about the right one. */
export function signatureMatches(secrets: SignatureSecrets, signedPath: string, signature: string): boolean {
  const expected = Buffer.from(sign(secrets, signedPath));
  const given = Buffer.from(signature);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
