/**
 * What a transformation URL's options ask for (docs/api.md, "Transformations"), with imgproxy's names, short forms
 * and meanings (docs.imgproxy.net, "Processing options"). Options apply in URL order, a preset's in
 * its place; a later one overrides an earlier one. Any other option, or a malformed value: 400/180.
 */
import { errors } from '../http/api-error';
import { ownValue } from '../../../shared/own-property';
import type { RawOption } from './imgproxy-url';
import { COMPASS, RESIZING_TYPES, type Compass, type Geometry, type Gravity, type ResizingType } from '../../../shared/render-plan';

export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface TransformSpec extends Geometry {
  /** 0: the format's default. */
  quality: number;
  /** null: the extension's, else negotiated from Accept. */
  format: OutputFormat | null;
}

/** The largest `dpr` accepted (docs/api.md, "Transformations"). */
export const MAX_DPR = 4;

const invalid = errors.invalidTransformation;

const FORMAT_NAMES = new Map<string, OutputFormat>([['jpg', 'jpeg'], ['jpeg', 'jpeg'], ['png', 'png'], ['webp', 'webp'], ['avif', 'avif'], ['gif', 'gif']]);

export function formatNamed(name: string): OutputFormat {
  const format = FORMAT_NAMES.get(name.toLowerCase());
  if (!format) throw invalid(`unsupported format "${name}"`);
  return format;
}

function int(value: string | undefined, what: string, max = 100_000): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || Number(value) > max) throw invalid(`${what} must be a whole number from 0 to ${max}`);
  return Number(value);
}

function float(value: string | undefined, what: string, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!/^-?\d*\.?\d+$/.test(value) || number < min || number > max) throw invalid(`${what} must be a number from ${min} to ${max}`);
  return number;
}

function bool(value: string | undefined, what: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (['1', 't', 'true'].includes(value)) return true;
  if (['0', 'f', 'false'].includes(value)) return false;
  throw invalid(`${what} must be 1/t/true or 0/f/false`);
}

function resizingType(value: string | undefined): ResizingType | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(RESIZING_TYPES as readonly string[]).includes(value)) throw invalid(`resizing type must be one of ${RESIZING_TYPES.join(', ')}`);
  return value as ResizingType;
}

function gravity(args: string[]): Gravity {
  const [type, ...rest] = args;
  if (type === 'sm' && rest.length === 0) return { type: 'smart' };
  if (type === 'fp') {
    if (rest.length !== 2) throw invalid('gravity fp takes x and y');
    return { type: 'focal', x: float(rest[0], 'fp x', 0, 1) ?? 0.5, y: float(rest[1], 'fp y', 0, 1) ?? 0.5 };
  }
  if ((COMPASS as readonly string[]).includes(type) && rest.length <= 2) {
    return { type: 'compass', anchor: type as Compass, xOffset: float(rest[0], 'x offset', -1e5, 1e5) ?? 0, yOffset: float(rest[1], 'y offset', -1e5, 1e5) ?? 0 };
  }
  throw invalid(`gravity must be one of ${COMPASS.join(', ')}, sm or fp:x:y`);
}

/** An `extend` argument: imgproxy's extension to the requested size, which this service does not do. */
function noExtend(value: string | undefined) {
  if (bool(value, 'extend')) throw invalid('extend is not supported');
}

function argCount(option: RawOption, max: number, min = 1) {
  if (option.args.length < min || option.args.length > max) throw invalid(`${option.name} takes ${min === max ? min : `${min} to ${max}`} argument(s)`);
}

/** Options of a preset's definition (`rs:fit:245:156/q:80`). */
export const presetOptions = (definition: string): RawOption[] =>
  definition.split('/').filter(Boolean).map((segment) => {
    const [name, ...args] = segment.split(':');
    return { name, args };
  });

export interface ReadOptions {
  spec: TransformSpec;
  /** The URL's options are presets alone: it may carry any signature (docs/api.md, "Transformations"). */
  presetsOnly: boolean;
}

export function readOptions(options: RawOption[], presets: Record<string, string>): ReadOptions {
  const spec: TransformSpec = { resizingType: 'fit', width: 0, height: 0, dpr: 1, enlarge: false, gravity: null, quality: 0, format: null };

  const apply = (option: RawOption, inPreset: boolean) => {
    const { name, args } = option;
    switch (name) {
      case 'resize':
      case 'rs':
        argCount(option, 5);
        spec.resizingType = resizingType(args[0]) ?? spec.resizingType;
        spec.width = int(args[1], 'width') ?? spec.width;
        spec.height = int(args[2], 'height') ?? spec.height;
        spec.enlarge = bool(args[3], 'enlarge') ?? spec.enlarge;
        noExtend(args[4]);
        return;
      case 'size':
      case 's':
        argCount(option, 4);
        spec.width = int(args[0], 'width') ?? spec.width;
        spec.height = int(args[1], 'height') ?? spec.height;
        spec.enlarge = bool(args[2], 'enlarge') ?? spec.enlarge;
        noExtend(args[3]);
        return;
      case 'resizing_type':
      case 'rt':
        argCount(option, 1);
        spec.resizingType = resizingType(args[0]) ?? spec.resizingType;
        return;
      case 'width':
      case 'w':
        argCount(option, 1);
        spec.width = int(args[0], 'width') ?? 0;
        return;
      case 'height':
      case 'h':
        argCount(option, 1);
        spec.height = int(args[0], 'height') ?? 0;
        return;
      case 'dpr':
        argCount(option, 1);
        spec.dpr = float(args[0], 'dpr', 0.01, MAX_DPR) ?? 1;
        return;
      case 'enlarge':
      case 'el':
        argCount(option, 1);
        spec.enlarge = bool(args[0], 'enlarge') ?? false;
        return;
      case 'gravity':
      case 'g':
        argCount(option, 3);
        spec.gravity = gravity(args);
        return;
      case 'quality':
      case 'q':
        argCount(option, 1);
        spec.quality = int(args[0], 'quality', 100) ?? 0;
        return;
      case 'format':
      case 'f':
      case 'ext':
        argCount(option, 1);
        spec.format = args[0] === '' ? null : formatNamed(args[0]);
        return;
      case 'preset':
      case 'pr':
        if (inPreset) throw invalid('a preset cannot name presets');
        argCount(option, 50);
        for (const preset of args) {
          // The configuration's own presets only: `pr:constructor` names none.
          const definition = ownValue(presets, preset);
          if (definition === undefined) throw invalid(`unknown preset "${preset}"`);
          for (const inner of presetOptions(definition)) apply(inner, true);
        }
        return;
      default:
        throw invalid(`unknown option "${name}"`);
    }
  };

  for (const option of options) apply(option, false);
  const presetsOnly = options.length > 0 && options.every(({ name }) => name === 'preset' || name === 'pr');
  return { spec, presetsOnly };
}
