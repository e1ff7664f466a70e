/** How the usage page names an image (its dates and sizes: hooks/useFormat.ts). */
import type { ImageCard } from '../../../../shared/contracts/usage';

/** An image's title, else the client's file name, else its id. */
export const imageLabel = (image: ImageCard) => image.title ?? image.originalFilename ?? image.idEncoded;
