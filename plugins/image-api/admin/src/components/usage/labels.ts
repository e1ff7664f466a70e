/** How the usage page names an image and writes a date. */
import type { ImageCard } from '../../../../shared/contracts/usage';

/** An image's title, else the client's file name, else its id. */
export const imageLabel = (image: ImageCard) => image.title ?? image.originalFilename ?? image.idEncoded;

/** In the admin's locale; a dash for none. */
export const formatDate = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
