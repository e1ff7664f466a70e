export function freePort(): Promise<number>;
export function freePortRange(count: number): Promise<number>;
export function waitForPort(port: number, timeoutMs?: number, what?: string): Promise<void>;
export function statusOf(url: string): Promise<number>;
export function waitForHttp(url: string, timeoutMs: number, what: string, accept?: (status: number) => boolean): Promise<void>;
