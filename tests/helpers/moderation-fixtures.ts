/**
 * Pictures whose class is not in doubt, for the classifier's tests (no explicit picture is ever
 * needed: the modes are proven with thresholds set around an image's own score).
 */
import fs from 'fs';
import path from 'path';

/** The pictures of Strapi's example app (`create-strapi-app` is pinned in the devDependencies). */
const EXAMPLE_UPLOADS = () => path.join(path.dirname(require.resolve('create-strapi-app/package.json')), 'templates/example/data/uploads');

/**
 * A photograph of a landscape (mountains, snow, a camp at dusk; 1200×799 JPEG): Strapi's example
 * app ships it.
 */
export const landscapePhoto = (): Buffer => fs.readFileSync(path.join(EXAMPLE_UPLOADS(), 'beautiful-picture.jpg'));

/** Another photograph, of another subject (coffee beans), for "a different picture". */
export const otherPhoto = (): Buffer => fs.readFileSync(path.join(EXAMPLE_UPLOADS(), 'coffee-beans.jpg'));

/**
 * A graphic drawn, not photographed (Strapi's starter card: flat shapes and type on a gradient,
 * 1208×715 PNG), which the classifier calls a drawing. Simple SVG scenes drawn here were not enough:
 * the model, trained on illustrations and anime, called them neutral.
 */
export const drawing = (): Buffer => fs.readFileSync(path.join(EXAMPLE_UPLOADS(), 'default-image.png'));
