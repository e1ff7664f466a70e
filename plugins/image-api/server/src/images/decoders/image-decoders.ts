/**
 * libvips decodes more than the API accepts; hostile input should meet as few decoders as possible.
 * The API sniffs the bytes first and hands sharp only JPEG, PNG, GIF, WebP and HEIF (AVIF decoded by
 * libvips; a HEIC's header only, its pixels are libheif's in a worker: heic-pixels.ts), but sharp
 * picks its loader from the content, so every other loader is blocked (sharp.block). The block is
 * process-wide: Strapi's Media Library then stores SVG and TIFF uploads without reading their
 * dimensions (it treats the failure as "not an image"); `blockUnusedDecoders: false` restores that.
 */
import sharp from 'sharp';

/** libvips loader classes; blocking a class blocks its file, buffer and source variants. */
export const BLOCKED_LOADERS = [
  'VipsForeignLoadSvg',
  'VipsForeignLoadTiff',
  'VipsForeignLoadVips',
  'VipsForeignLoadPdf',
  'VipsForeignLoadMagick',
  'VipsForeignLoadPpm',
  'VipsForeignLoadFits',
  'VipsForeignLoadOpenexr',
  'VipsForeignLoadOpenslide',
  'VipsForeignLoadMat',
  'VipsForeignLoadRad',
  'VipsForeignLoadCsv',
  'VipsForeignLoadMatrix',
  'VipsForeignLoadAnalyze',
  'VipsForeignLoadJp2k',
  'VipsForeignLoadJxl',
];

/**
 * How sharp opens a HEIF (AVIF, or a HEIC's header). libvips holds libheif to 16 items a file unless
 * told `unlimited`, and phones write a 12 MP photo as 48 tiles and a grid: `unlimited` leaves libheif's
 * own limits (1,000 items, 32768×32768), and the pixel cap is the API's (`maxPixels`, checked on the
 * header: image-probe.ts).
 */
export const HEIF_OPEN = { unlimited: true } as const;

export function restrictDecoders(block: boolean): void {
  if (block) sharp.block({ operation: BLOCKED_LOADERS });
  else sharp.unblock({ operation: BLOCKED_LOADERS });
}
