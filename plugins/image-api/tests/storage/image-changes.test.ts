/**
 * The image and key change signals (storage/image-changes.ts, keys/key-changes.ts, on
 * operations/in-process-signal.ts): each listener hears each change once, at once, in order; one that
 * throws is reported and does not stop the others or the emitter; an unsubscribed one hears nothing.
 */
import type { Core } from '@strapi/strapi';
import imageChanges, { type ImageChange } from '../../server/src/storage/image-changes';
import keyChanges from '../../server/src/keys/key-changes';
import { createSignal } from '../../server/src/operations/in-process-signal';

const fakeStrapi = () => {
  const warnings: string[] = [];
  const strapi = { log: { warn: (line: string) => warnings.push(line) } } as unknown as Core.Strapi;
  return { strapi, warnings };
};

describe('image changes', () => {
  test('every listener hears each change once, in the order they subscribed, before changed() returns', () => {
    const changes = imageChanges(fakeStrapi());
    const heard: string[] = [];
    changes.subscribe(({ kind, names }) => heard.push(`first ${kind} ${names.join(',')}`));
    changes.subscribe(({ kind, names }) => heard.push(`second ${kind} ${names.join(',')}`));
    changes.changed('deleted', ['a-Ab12', 'b-Cd34']);
    expect(heard).toEqual(['first deleted a-Ab12,b-Cd34', 'second deleted a-Ab12,b-Cd34']);
    changes.changed('stored', ['c-Ef56']);
    changes.changed('edited', ['a-Ab12']);
    expect(heard.slice(2)).toEqual(['first stored c-Ef56', 'second stored c-Ef56', 'first edited a-Ab12', 'second edited a-Ab12']);
  });

  test('no names, no signal', () => {
    const changes = imageChanges(fakeStrapi());
    const heard: ImageChange[] = [];
    changes.subscribe((change) => heard.push(change));
    changes.changed('deleted', []);
    expect(heard).toEqual([]);
  });

  test('a listener that throws is logged; the others still hear the change and changed() does not throw', () => {
    const { strapi, warnings } = fakeStrapi();
    const changes = imageChanges({ strapi });
    const heard: ImageChange[] = [];
    changes.subscribe(() => {
      throw new Error('cache broken');
    });
    changes.subscribe((change) => heard.push(change));
    expect(() => changes.changed('edited', ['x-Ab12'])).not.toThrow();
    expect(heard).toEqual([{ kind: 'edited', names: ['x-Ab12'] }]);
    expect(warnings).toEqual(['image-api: a cache did not take an image change: cache broken']);
  });

  test('unsubscribed: hears nothing more; the same function subscribed twice is two subscriptions', () => {
    const changes = imageChanges(fakeStrapi());
    const heard: string[] = [];
    const listener = ({ names }: ImageChange) => heard.push(names[0]);
    const first = changes.subscribe(listener);
    changes.subscribe(listener);
    changes.changed('deleted', ['one']);
    expect(heard).toEqual(['one', 'one']);
    first();
    changes.changed('deleted', ['two']);
    expect(heard).toEqual(['one', 'one', 'two']);
  });

  test('each service has signals of its own (one per Strapi instance)', () => {
    const a = imageChanges(fakeStrapi());
    const b = imageChanges(fakeStrapi());
    const heard: string[] = [];
    a.subscribe(({ names }) => heard.push(`a ${names[0]}`));
    b.changed('deleted', ['x']);
    expect(heard).toEqual([]);
  });
});

describe('key changes', () => {
  test('every listener hears each change; one that throws is logged', () => {
    const { strapi, warnings } = fakeStrapi();
    const changes = keyChanges({ strapi });
    let heard = 0;
    changes.subscribe(() => {
      throw new Error('no');
    });
    changes.subscribe(() => heard++);
    changes.changed();
    changes.changed();
    expect(heard).toBe(2);
    expect(warnings).toEqual(['image-api: a cache did not take a key change: no', 'image-api: a cache did not take a key change: no']);
  });
});

test('createSignal reports what a listener throws, whatever it is', () => {
  const reported: unknown[] = [];
  const signal = createSignal<number>((error) => reported.push(error));
  signal.subscribe(() => {
    throw 'text';
  });
  signal.emit(1);
  expect(reported).toEqual(['text']);
});
