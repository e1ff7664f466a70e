/** Types of gif.js: animated GIFs of many frames, written without sharp's encoder. */
export interface AnimatedGifOptions {
    width: number;
    height: number;
    frames: number;
    /** Different pictures shown in turn (8). */
    distinct?: number;
    /** Hundredths of a second a frame is shown (4). */
    delayCs?: number;
    /** Hundredths of a second each frame is shown, in turn (instead of `delayCs`). */
    delaysCs?: number[] | null;
    /** Times the animation plays again (the NETSCAPE2.0 block's count; 0, the default: for ever); null: no block, shown once. */
    loops?: number | null;
    /** Edge of the squares the pictures are made of, pixels (8): smaller squares compress less. */
    block?: number;
    /** Colours of the global palette, as bits (8: 256 colours). */
    colorBits?: 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;
}
/** A GIF89a (looping for ever by default): a global palette, the NETSCAPE2.0 block, LZW-coded frames. */
export declare function animatedGif(options: AnimatedGifOptions): Buffer;
