/**
 * An upload's screening (docs/moderation.md): the blocklist's exact hashes of the bytes the client
 * sent, before any image work; then, on the image work's result, the stored original's exact hashes,
 * its perceptual fingerprint, and the classifier's scores, with the verdict of the key's mode. A
 * blocked upload is 403 (code 107), a refused one 422 (code 106): both before anything is stored.
 *
 * Nothing is computed that nothing reads: a hash kind is computed only while the blocklist holds
 * entries of it, and the pixels only when the key's mode classifies or the list has fingerprints.
 */
import crypto from 'crypto';
import type { Core } from '@strapi/strapi';
import sharp from 'sharp';
import { errors } from '../http/api-error';
import type { DecodedMedium, VariantSet } from '../images/variant-set';
import { getConfig, getService } from '../get-service';
import { CLASSIFIER_INPUT } from './classifier';
import { PDQ_DOWNSAMPLE_MAX, PDQ_MIN_QUALITY, pdqFromPixels } from './pdq';
import { nsfwScore, policyFor, verdict, type ModerationPolicy, type NsfwScores, type Verdict } from './moderation-modes';

/**
 * Hex digests of an upload's bytes as sent, those the blocklist lists kinds of. A stored original
 * that is those bytes (a file with nothing to strip or turn) is not hashed again.
 */
export interface ExactDigests {
  sha256?: string;
  md5?: string;
}

export interface Screening {
  verdict: Verdict;
  /** The NSFW score and the classes; null when not classified (mode `off`). */
  score: number | null;
  scores: NsfwScores | null;
}

/** Seconds a client is told to wait after a classification that failed. */
const RETRY_AFTER_SECONDS = 5;

const digest = (algorithm: 'sha256' | 'md5', bytes: Buffer) => crypto.createHash(algorithm).update(bytes).digest('hex');

/** Pixels the screening reads: 8 bits a channel, 1 to 4 channels (grey, grey and alpha, RGB, RGBA), sRGB. */
interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/**
 * The medium variant's pixels within PDQ_DOWNSAMPLE_MAX a side: what both the fingerprint and the
 * classifier read (transparency on white, as each of them reads it). Usually the image work's own
 * decode of the medium (VariantSet.pixels: a 500 px wide medium is within the bound as it is, and
 * costs nothing more). Else (a HEIC's or an animation's variants, made elsewhere) the medium file
 * decoded again: a few milliseconds, off the main thread. Bounded in height too: a medium is bounded
 * in width only, and a 500×200,000 medium's pixels took 300 MB and 5.7 s of the main thread's PDQ.
 */
async function mediumPixels(variants: VariantSet): Promise<Pixels> {
  const decoded = variants.pixels;
  if (decoded && isPixels(decoded) && decoded.width <= PDQ_DOWNSAMPLE_MAX && decoded.height <= PDQ_DOWNSAMPLE_MAX) return decoded;
  const input = decoded && isPixels(decoded) ? sharp(decoded.data, { raw: rawOf(decoded) }) : sharp(variants.medium.buffer);
  const { data, info } = await input
    .resize(PDQ_DOWNSAMPLE_MAX, PDQ_DOWNSAMPLE_MAX, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

const isPixels = (decoded: DecodedMedium): decoded is Pixels =>
  decoded.channels >= 1 && decoded.channels <= 4 && decoded.data.length === decoded.width * decoded.height * decoded.channels;

const rawOf = (pixels: Pixels) => ({ width: pixels.width, height: pixels.height, channels: pixels.channels });

/** The classifier's input: the whole picture squeezed to its square, as nsfwjs's own loader does; RGB on white. */
const classifierInput = (pixels: Pixels) =>
  sharp(pixels.data, { raw: rawOf(pixels) })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .resize(CLASSIFIER_INPUT, CLASSIFIER_INPUT, { fit: 'fill' })
    .raw()
    .toBuffer();

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const metrics = () => getService(strapi, 'metrics');

  async function classify(pixels: Pixels): Promise<NsfwScores> {
    const done = metrics().timeClassification();
    try {
      const scores = await getService(strapi, 'classifier').classify(await classifierInput(pixels));
      done('ok');
      return scores;
    } catch (error) {
      done('failed');
      strapi.log.error(`image-api: classification failed: ${(error as Error).message}`);
      throw errors.unavailable('the image could not be classified, try again shortly', RETRY_AFTER_SECONDS);
    }
  }

  function blocked(): never {
    metrics().moderated('blocked');
    throw errors.blockedContent();
  }

  return {
    /** The key's mode and threshold, the option's where it sets none. */
    policy: (key: Parameters<typeof policyFor>[0]): ModerationPolicy => policyFor(key, getConfig(strapi).moderation),

    /** Whether some key, or the default, classifies uploads: the model is worth loading. */
    async anyKeyClassifies(): Promise<boolean> {
      if (getConfig(strapi).moderation.mode !== 'off') return true;
      return (await getService(strapi, 'api-keys').countModerated()) > 0;
    },

    /** Starts loading the model in the background when `moderation.warm` is on and some key classifies; never fails. */
    async warmIfUsed(): Promise<void> {
      try {
        if (getConfig(strapi).moderation.warm && (await this.anyKeyClassifies())) getService(strapi, 'classifier').warm();
      } catch (error) {
        strapi.log.warn(`image-api: the classifier was not warmed: ${(error as Error).message}`);
      }
    },

    /** Whether screenImage will read the pixels (the key's mode classifies, or the list has PDQ hashes): the image work hands them over. */
    async needsPixels(policy: ModerationPolicy): Promise<boolean> {
      return policy.mode !== 'off' || (await getService(strapi, 'blocklist').listedKinds()).pdq;
    },

    /**
     * Before the image work: the bytes as the client sent them, against the blocklist's exact hashes
     * (403, code 107). Returns the digests it computed, for the stored original when it is those
     * bytes (ExactDigests).
     */
    async screenSource(bytes: Buffer): Promise<ExactDigests> {
      const listed = await getService(strapi, 'blocklist').listedKinds();
      if (!listed.sha256 && !listed.md5) return {};
      const digests: ExactDigests = {
        ...(listed.sha256 ? { sha256: digest('sha256', bytes) } : {}),
        ...(listed.md5 ? { md5: digest('md5', bytes) } : {}),
      };
      const match = await getService(strapi, 'blocklist').check({ sha256: digests.sha256 ? [digests.sha256] : [], md5: digests.md5 ? [digests.md5] : [], pdq: null });
      if (match) blocked();
      return digests;
    },

    /**
     * After the image work: the stored original's exact hashes (`original.md5`: already computed for
     * the record; `original.sha256` when screenSource computed it of the same bytes), the perceptual
     * fingerprint, then the classification and its verdict (422, code 106, for a refusal). The
     * fingerprint and the scores are computed together, from one read of pixels.
     */
    async screenImage(variants: VariantSet, original: { md5: string; sha256?: string }, policy: ModerationPolicy, clientNsfw: boolean): Promise<Screening> {
      const blocklist = getService(strapi, 'blocklist');
      const listed = await blocklist.listedKinds();
      const classifies = policy.mode !== 'off';
      const pixels = classifies || listed.pdq ? await mediumPixels(variants) : null;
      // The classification starts while the list is looked up: a blocked upload's is wasted, a rare case.
      const scoring = classifies && pixels ? classify(pixels) : null;
      // Never unhandled while the list answers first.
      scoring?.catch(() => undefined);
      if (listed.sha256 || listed.md5 || listed.pdq) {
        // A fingerprint of low quality (a flat or nearly flat picture: every solid colour hashes to
        // zeros) matches too much to judge by: PDQ's reference says to discard those.
        const perceptual = listed.pdq && pixels ? pdqFromPixels(pixels.data, pixels.width, pixels.height, pixels.channels) : null;
        const match = await blocklist.check({
          sha256: listed.sha256 ? [original.sha256 ?? digest('sha256', variants.original.buffer)] : [],
          md5: listed.md5 ? [original.md5] : [],
          pdq: perceptual && perceptual.quality >= PDQ_MIN_QUALITY ? perceptual.hash : null,
        });
        if (match) blocked();
      }
      const scores = scoring ? await scoring : null;
      const score = scores ? nsfwScore(scores) : null;
      const judged = verdict(policy, score, clientNsfw);
      if (judged.refuse) {
        metrics().moderated('refused');
        throw errors.refusedByModeration();
      }
      return { verdict: judged, score, scores };
    },
  };
};
