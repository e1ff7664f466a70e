/** A server of a test's own (postgres.js, redis.js) that the test may stop, hang or kill. */
export interface OwnServer {
  port: number;
  pid(): number;
  /** SIGSTOP: the server keeps its sockets but answers nothing. */
  hang(): void;
  /** SIGCONT. */
  resume(): void;
  /** Stops it; start() brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good and removes its data. */
  destroy(): Promise<void>;
}
