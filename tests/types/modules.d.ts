// Packages the tests use that ship no types of their own: only what the tests call.
declare module 'imgbb-uploader' {
  interface ImgbbOptions {
    apiKey: string;
    imagePath?: string;
    base64string?: string;
    imageUrl?: string;
    name?: string;
    expiration?: number;
    cheveretoHost?: string;
    customPayload?: Record<string, string>;
  }
  function imgbbUploader(options: ImgbbOptions): Promise<Record<string, any>>;
  function imgbbUploader(apiKey: string, imagePath: string): Promise<Record<string, any>>;
  export = imgbbUploader;
}
declare module 'micromatch' {
  function isMatch(path: string, patterns: string | string[]): boolean;
  const micromatch: { isMatch: typeof isMatch };
  export = micromatch;
}
declare module 'pg' {
  export class Client {
    constructor(config: { connectionString?: string; host?: string; port?: number; user?: string; database?: string });
    connect(): Promise<void>;
    query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }>;
    end(): Promise<void>;
  }
}
