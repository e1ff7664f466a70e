/**
 * libvips decodes more than the API accepts; hostile input should meet as few decoders as possible.
 * The API sniffs the bytes first and hands sharp only JPEG, PNG, GIF and WebP, but sharp picks its
 * loader from the content, so every other loader is blocked (sharp.block). The block is
 * process-wide: Strapi's Media Library then stores SVG, TIFF and AVIF uploads without reading their
 * dimensions (it treats the failure as "not an image"); `blockUnusedDecoders: false` restores that.
 */
import sharp from 'sharp';

/** libvips loader classes; blocking a class blocks its file, buffer and source variants. */
export const BLOCKED_LOADERS = [
  'VipsForeignLoadSvg',
  'VipsForeignLoadTiff',
  'VipsForeignLoadHeif',
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

export function restrictDecoders(block: boolean): void {
  if (block) sharp.block({ operation: BLOCKED_LOADERS });
  else sharp.unblock({ operation: BLOCKED_LOADERS });
}
