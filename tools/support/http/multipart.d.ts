export interface FilePart {
  bytes: Buffer;
  name: string;
  type?: string;
  /** The field's name; `source` unless given. */
  field?: string;
}

export function multipartFrame(fields: Record<string, string | number>, file?: FilePart): { head: Buffer; tail: Buffer; contentType: string; length: number };
export function multipart(fields: Record<string, string | number>, file?: FilePart): { body: Buffer; type: string; headers: Record<string, string | number> };
