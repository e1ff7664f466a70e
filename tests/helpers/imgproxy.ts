/** Transformation paths as imgproxy signs them (docs/api.md, "Serving images"), for hand-written option strings. */
import crypto from 'crypto';

/** `/img/{signature}{rest}`, `rest` being `/{options}/{source}` as sent. */
export const signedPath = (key: string, salt: string, rest: string, base = '/img') =>
  `${base}/${crypto.createHmac('sha256', Buffer.from(key, 'hex')).update(Buffer.from(salt, 'hex')).update(rest).digest('base64url')}${rest}`;

/** A fresh key and salt, hex. */
export const transformSecrets = () => ({ key: crypto.randomBytes(32).toString('hex'), salt: crypto.randomBytes(16).toString('hex') });
