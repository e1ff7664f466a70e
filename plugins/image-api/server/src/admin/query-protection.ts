/**
 * What an admin may not read, an admin may not query either (docs/security.md, "Server-only
 * fields"): a filter, a sort or a search on a field answers through counts and order even when the
 * field itself is stripped from the answer (field-protection.ts). `filters[api_key][contact]
 * [$startsWith]=a` on the image list told an Editor a key's contact, one character per request.
 *
 * Every admin route that takes a query sanitizes it through Strapi's permissions manager
 * (`admin::permission`'s createPermissionsManager: the Content Manager's lists and relation pickers,
 * the Media Library's files and folders, content releases). Its `sanitizeQuery` checks only the
 * queried model's own fields: a path through a relation (`api_key.contact`, `api_key.images.
 * delete_hash`, a Media Library file's `related` images) reaches the target's fields unchecked. This
 * module wraps that `sanitizeQuery`: at any depth of `filters`, `sort` and `populate` (their nested
 * `filters` and `sort`, `on` fragments included), whatever the operators and groups around it, a
 * field the admin may not read is removed, as Strapi removes a field outside one's permissions
 * (field-visibility.ts says which):
 * - server-only fields (SERVER_ONLY_FIELDS: a key's hash and encrypted copy, an image's delete-link
 *   hash, the expiry claims, the duplicate digest, the saved answer), for every role;
 * - the secrets of an entry that rides along as a relation (RELATION_VIEWS: a site user's password
 *   hash, reset and confirmation tokens), for every role: sorting images by `owner_user.password`
 *   ordered them by their users' hashes, Super Admins' and Editors' lists alike;
 * - the other fields of such an entry but those that name it (a key's contact, a site user's e-mail
 *   address, provider, role, state), for admins whose role may not read that field of its content
 *   type in the Content Manager (Editors and Authors by default: admin/admin-permissions.ts withdraws key
 *   entries from them, Strapi site users). This holds wherever the type is reached, at the root of
 *   its own list too.
 * `_q` (the Content Manager's search) matches every text column of the listed model in the
 * database: server-only columns are `searchable: false` in their schemas, and where an admin may
 * not read a searchable field (a key's contact, a user's e-mail address), the search becomes a
 * filter over the fields they may read.
 */
import type { Core } from '@strapi/strapi';
import { contentTypes, traverse } from '@strapi/utils';
import { RELATION_VIEWS, SERVER_ONLY_FIELDS, inAudience, readerOf, type Ability } from './field-visibility';

const { isScalarAttribute } = contentTypes;

/** Nesting walked when tidying a sort; real sorts are a few levels deep. */
const MAX_DEPTH = 16;

type Model = ReturnType<Core.Strapi['getModel']>;
type Query = Record<string, unknown>;

/** What @strapi/utils' query traversals hand a visitor, and what it may do (traverse/factory.d.ts). */
type Visitor = (
  node: { key: string; value: unknown; attribute?: { type: string }; schema: { uid: string } },
  edit: { set(key: string, value: unknown): void; remove(key: string): void }
) => void | Promise<void>;

interface PermissionsManager {
  sanitizeQuery(query: Query, options?: unknown): Promise<Query>;
}

interface ManagerOptions {
  ability?: Ability;
  model: string;
}

const SERVER_ONLY = new Map<string, Set<string>>(Object.entries(SERVER_ONLY_FIELDS).map(([uid, fields]) => [uid, new Set(fields)]));
const VIEWS = new Map(Object.entries(RELATION_VIEWS));

/** Column types the database's search reads (@strapi/database's applySearch): text always, numbers for a numeric `_q`. */
const TEXT_TYPES = new Set(['string', 'text', 'uid', 'email', 'enumeration', 'richtext']);
const NUMBER_TYPES = new Set(['biginteger', 'integer', 'decimal', 'float']);

/** Whether an admin with `ability` may query `field` of `uid` (see the file comment); without an ability, of a related entry only what names it. */
export function readableBy(ability: Ability | undefined): (uid: string, field: string) => boolean {
  const reads = readerOf(ability);
  return (uid, field) => {
    if (SERVER_ONLY.get(uid)?.has(field)) return false;
    const view = VIEWS.get(uid);
    if (!view || view.names.has(field)) return true;
    return !view.secrets.has(field) && inAudience(view.others.queried, reads, uid, field);
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Drops the groups a removal left empty (`{ api_key: {} }`, `$or: []`, `$not: {}`), at any depth. */
function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune).filter((item) => !isEmptyGroup(item));
  if (!isPlainObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const pruned = prune(item);
    if (!isEmptyGroup(pruned)) kept[key] = pruned;
  }
  return kept;
}
const isEmptyValue = (value: unknown) => value === undefined || value === null || value === '' || isEmptyGroup(value);
const isEmptyGroup = (value: unknown) => (Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0);

/** Removes what `readable` refuses from a query's filters, sort and populate, at any depth. */
export function queryProtection(strapi: Core.Strapi, readable: (uid: string, field: string) => boolean) {
  const getModel = (uid: string) => strapi.getModel(uid as Parameters<Core.Strapi['getModel']>[0]) as Model;
  const removeUnreadable: Visitor = ({ key, attribute, schema }, { remove }) => {
    if (attribute && !readable(schema.uid, key)) remove(key);
  };
  const filters = async (value: unknown, schema: Model) => prune(await traverse.traverseQueryFilters(removeUnreadable, { schema, getModel }, value));
  // A relation whose sorted field went is left bare (`api_key.contact:desc` becomes `api_key`), which
  // the database cannot sort by: removed too, level by level, as Strapi's own sanitizer does.
  const bareRelation: Visitor = ({ key, attribute, value }, { remove }) => {
    if ((!attribute || !isScalarAttribute(attribute as Parameters<typeof isScalarAttribute>[0])) && isEmptyValue(value)) remove(key);
  };
  const sort = async (value: unknown, schema: Model) => {
    let sorted = await traverse.traverseQuerySort(removeUnreadable, { schema, getModel }, value);
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const before = JSON.stringify(sorted);
      sorted = await traverse.traverseQuerySort(bareRelation, { schema, getModel }, sorted);
      if (JSON.stringify(sorted) === before) break;
    }
    return sorted;
  };
  // Inside populate, `filters` and `sort` are keywords (no attribute), read against the populated model.
  const nested: Visitor = async ({ key, attribute, value, schema }, { set, remove }) => {
    if (attribute) {
      if (!readable(schema.uid, key)) remove(key);
      return;
    }
    if (key === 'filters') set(key, await filters(value, getModel(schema.uid)));
    if (key === 'sort') {
      const sorted = await sort(value, getModel(schema.uid));
      if (isEmptyValue(sorted)) remove(key);
      else set(key, sorted);
    }
  };
  const populate = (value: unknown, schema: Model) => traverse.traverseQueryPopulate(nested, { schema, getModel }, value);

  return async (query: Query, uid: string): Promise<Query> => {
    const schema = getModel(uid);
    if (!schema || !isPlainObject(query)) return query;
    const protectedQuery: Query = { ...query };
    if (query.filters !== undefined) protectedQuery.filters = await filters(query.filters, schema);
    // A sort left with nothing goes: an empty one would replace the route's own order (a relation
    // picker sorts by its main field), and the order would differ from the one without it.
    if (query.sort !== undefined) {
      const sorted = await sort(query.sort, schema);
      if (isEmptyValue(sorted)) delete protectedQuery.sort;
      else protectedQuery.sort = sorted;
    }
    if (query.populate !== undefined) protectedQuery.populate = await populate(query.populate, schema);
    return searchWithin(protectedQuery, schema, readable);
  };
}

/**
 * `_q` as the database runs it, over the fields `readable` allows only: left as it is when it may
 * read every searchable field, else turned into a filter (text fields contain it, number fields and
 * the id equal it) and `_q` removed.
 */
function searchWithin(query: Query, schema: Model, readable: (uid: string, field: string) => boolean): Query {
  const search = query._q;
  if (typeof search !== 'string' || search === '') return query;
  const numeric = search.trim() !== '' && !Number.isNaN(Number(search));
  const searched = Object.entries(schema.attributes as Record<string, { type: string; searchable?: boolean }>).filter(
    ([, attribute]) => attribute.searchable !== false && (TEXT_TYPES.has(attribute.type) || (numeric && NUMBER_TYPES.has(attribute.type)))
  );
  if (searched.every(([field]) => readable(schema.uid, field))) return query;
  const matches: Query[] = searched
    .filter(([field]) => readable(schema.uid, field))
    .map(([field, attribute]) => ({ [field]: TEXT_TYPES.has(attribute.type) ? { $containsi: search } : { $eq: search } }));
  if (numeric && Number.isSafeInteger(Number(search))) matches.push({ id: { $eq: Number(search) } });
  const { _q: _search, ...rest } = query;
  // Nothing it may read: a search that finds nothing, as one over no column would.
  const match = matches.length > 0 ? { $or: matches } : { id: { $null: true } };
  return { ...rest, filters: rest.filters === undefined ? match : { $and: [rest.filters, match] } };
}

/** Wraps every permissions manager's `sanitizeQuery` (see the file comment); from the plugin's register. */
export function protectQueries(strapi: Core.Strapi): void {
  const permissions = strapi.service('admin::permission') as { createPermissionsManager?: (options: ManagerOptions) => PermissionsManager };
  const create = permissions?.createPermissionsManager;
  if (typeof create !== 'function') throw new Error("image-api: admin::permission has no createPermissionsManager: admin queries cannot be protected");
  permissions.createPermissionsManager = (options: ManagerOptions) => {
    const manager = create.call(permissions, options);
    const sanitizeQuery = manager.sanitizeQuery.bind(manager);
    const protect = queryProtection(strapi, readableBy(options.ability));
    manager.sanitizeQuery = async (query, sanitizeOptions) => protect(await sanitizeQuery(query, sanitizeOptions), options.model);
    return manager;
  };
}
