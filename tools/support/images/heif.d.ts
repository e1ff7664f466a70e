/** Types of heif.js: HEIC test files as phones write them (grids, rotations, EXIF, colour) and HEIC bombs. */
export declare const HEIF_ENC: string;
export interface HeicOptions {
    width: number;
    height: number;
    /** Counter-clockwise turns of 90° a reader applies (`irot`); 0: none. */
    rotate?: 0 | 1 | 2 | 3;
    quality?: number;
    /** TIFF-structured EXIF to carry as an `Exif` item. */
    exif?: Buffer;
    /** The picture: by default four coloured quadrants (red, green / blue, white), to tell orientation. */
    picture?: Buffer;
    /** What the picture's numbers mean, as a `colr` property of the grid: an ICC profile, or nclx code points (ITU-T H.273). */
    colour?: HeicColour;
}
export type HeicColour = { icc: Buffer } | { nclx: { primaries: number; transfer: number; matrix: number; fullRange: boolean } };
/** Four quadrants: red top left, green top right, blue bottom left, white bottom right. */
export declare function quadrants(width: number, height: number): Promise<Buffer>;
/** A grid HEIC (as phones write): tiles of 512×512, the last row and column cut by the grid's output size. */
export declare function heic(options: HeicOptions): Promise<Buffer>;
/**
 * A HEIC bomb: one 512×512 tile, coded once and named by every cell of a `columns`×`rows` grid, so a
 * file of a few kilobytes declares columns×rows×0.26 megapixels.
 */
export declare function heicBomb(columns: number, rows: number): Promise<Buffer>;
