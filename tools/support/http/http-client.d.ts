import type { Agent } from 'http';

export interface Answer {
  /** HTTP status, or 0 when the client got no answer (socket error, timeout). */
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed, or null when it is not JSON. */
  json: any;
  /** json when it parsed, else text. */
  body: any;
  /** The client's error when there was no answer. */
  error?: string;
  ms: number;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: Buffer | string | Buffer[];
  /** The loopback source address. */
  from?: string;
  timeoutMs?: number;
  agent?: Agent | false;
}

export interface UploadOptions {
  name?: string;
  type?: string;
  fields?: Record<string, string | number>;
  keyIn?: 'header' | 'field';
  headers?: Record<string, string>;
  from?: string;
  timeoutMs?: number;
  path?: string;
}

export function request(url: string, options?: RequestOptions): Promise<Answer>;
export function uploadFile(url: string, key: string, bytes: Buffer, options?: UploadOptions): Promise<Answer>;
export function tally(answers: Answer[]): Record<number, number>;
