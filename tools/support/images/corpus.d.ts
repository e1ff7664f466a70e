/** Types of corpus.js: images as phones, cameras and editors write them, each with its truth. */
export type Rgb = [number, number, number] | number[];
export type SourceFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'heic' | 'bmp';
export type StoredFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif';

export interface CorpusTruth {
    /** What the bytes are. */
    format: SourceFormat;
    /** What the service stores them as (a HEIC as JPEG, a BMP as PNG). */
    stored: StoredFormat;
    /** Upright, after EXIF orientation or the container's rotation. */
    width: number;
    height: number;
    frames: number;
    /** Each frame's delay (ms) of an animation, null for a still. */
    delaysMs: number[] | null;
    /** Times an animation plays (0: for ever), null for a still. */
    loop: number | null;
    /**
     * The upright picture's quadrants (top left, top right, bottom left, bottom right), as sRGB seen
     * at each quadrant's middle; null where the picture is not made of quadrants.
     */
    corners: Rgb[] | null;
    /** The centre patch (PATCH of each side) in sRGB, `[0, 0, 0, 0]` when transparent, null when there is none. */
    centre: Rgb | null;
    /** The colours above are exact sRGB (within JPEG's error); false: only told apart. */
    colours: boolean;
    /** The centre patch is transparent, the quadrants opaque. */
    alpha: boolean;
    /** The file carries metadata that locates or names someone (or bytes after its end). */
    metadata: boolean;
    /** The file carries an ICC profile (kept on an original stored in the same format). */
    icc: boolean;
    /** Removing the metadata must leave the coded picture as it is (a BMP: its pixels, in its PNG). */
    lossless: boolean;
    /** A lossless (VP8L) WebP. */
    webpLossless: boolean;
}

export interface CorpusCase {
    name: string;
    filename: string;
    truth: CorpusTruth;
}

export interface CorpusEntry extends CorpusCase {
    bytes: Buffer;
    /** The exact upright pixels where the corpus knows them (the BMPs): RGBA, 8 bits. */
    pixels: { data: Buffer; width: number; height: number; channels: 4 } | null;
}

/** Every case, by name, with its truth (no bytes yet: a test table's rows). */
export declare const corpusCases: readonly CorpusCase[];
/** One entry, made once per process. */
export declare function corpusEntry(name: string): Promise<CorpusEntry>;
/** Every entry, made. */
export declare function corpus(): Promise<CorpusEntry[]>;
/** The fraction of each side the centre patch spans. */
export declare const PATCH: [number, number];
/** Who the metadata names. */
export declare const PERSON: { make: string; model: string; artist: string };
/** A TIFF-structured EXIF block naming PERSON, with an orientation and the GPS position if asked. */
/** A bottom-up BI_RGB BMP of RGBA pixels, 24 bits a pixel or 32 (the alpha byte kept). */
export declare function bmp(width: number, height: number, rgba: Buffer, depth: 24 | 32): Buffer;

export declare function exifTiff(options?: { orientation?: number | null; gps?: boolean }): Buffer;
/** A v2 ICC display profile (matrix and curves) of Display P3 or Adobe RGB (1998). */
export declare function iccProfile(space: 'p3' | 'adobe', description: string): Buffer;
/** The sRGB colour pixel values of `space` show (worked out from the spaces' primaries). */
export declare function toSrgb(space: 'srgb' | 'p3' | 'adobe', rgb: Rgb): number[];
