/** Types of webp.js: animated WebPs of many frames, their frames coded once by sharp and repeated. */
export interface AnimatedWebpOptions {
    width: number;
    height: number;
    frames: number;
    /** Different pictures shown in turn (4). */
    distinct?: number;
    /** Edge of the squares the pictures are made of, pixels (8). */
    block?: number;
    delayMs?: number;
    /** Milliseconds each frame is shown, in turn (instead of `delayMs`). */
    delaysMs?: number[] | null;
    /** Times the animation plays (the ANIM chunk's count); 0, the default: for ever. */
    loops?: number;
    lossless?: boolean;
    quality?: number;
    /** TIFF-structured EXIF, carried in an EXIF chunk. */
    exif?: Buffer | null;
}
export declare function animatedWebp(options: AnimatedWebpOptions): Promise<Buffer>;
/** The chunks of a RIFF WEBP file. */
export declare function webpChunks(file: Buffer): Array<{ type: string; payload: Buffer }>;
