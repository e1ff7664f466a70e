/**
 * What an image card paints while its thumbnail loads (docs/api.md, "The image object"): the image's dominant colour,
 * and its ThumbHash drawn as a blurred picture of it (decoded here, in the browser: no request).
 */
import type { CSSProperties } from 'react';
import { thumbHashToDataURL } from 'thumbhash';
import type { ImageCard } from '../../../../shared/contracts/usage';

const pictures = new Map<string, string>();

function pictureOf(placeholder: string): string | null {
  let url = pictures.get(placeholder);
  if (url === undefined) {
    try {
      url = thumbHashToDataURL(Uint8Array.from(atob(placeholder), (char) => char.charCodeAt(0)));
    } catch {
      url = '';
    }
    pictures.set(placeholder, url);
  }
  return url || null;
}

export function placeholderStyle(image: Pick<ImageCard, 'placeholder' | 'dominantColor'>): CSSProperties {
  const picture = image.placeholder ? pictureOf(image.placeholder) : null;
  return {
    ...(image.dominantColor ? { backgroundColor: image.dominantColor } : {}),
    ...(picture ? { backgroundImage: `url(${picture})`, backgroundSize: 'cover', backgroundPosition: 'center' } : {}),
  };
}
