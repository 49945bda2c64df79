/**
 * The TypeBox schemas every `/api` route module shares: the admin envelope `{success, message, data}`,
 * its error body, id parameters and the error answers of a logged-in route. Shared schemas have an
 * `$id` (registered once, http/route-docs.ts) and are the document's components of that name.
 */
import { Type, type TSchema } from 'typebox';

/** The error body of every `/api` answer that is not a success (http/errors.ts); its code is in the X-Error-Code header. */
export const AdminError = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    data: Type.Null(),
    field: Type.Optional(Type.String({ description: 'the input field a 400 is about, when known' })),
  },
  { $id: 'AdminError' },
);

/** Schemas with an `$id`, registered with Fastify (for `$ref`) and listed as the document's components. */
export const SHARED_SCHEMAS: TSchema[] = [AdminError];

/** A reference to a shared schema by its `$id`. */
export const ref = <T extends TSchema>(s: T) => Type.Unsafe<import('typebox').Static<T>>(Type.Ref((s as { $id?: string }).$id as string));

/** `{success: true, message, data}` around `data`. */
export const Envelope = <T extends TSchema>(data: T, description = 'OK') =>
  Type.Object({ success: Type.Boolean(), message: Type.String(), data }, { description });

/** A numeric id in the path, e.g. `/api/plan/{id}`. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

const errorAnswer = (description: string) => ({ ...ref(AdminError), description });

/** The error answers of a route behind a login (400 bad input, 401, 403, 404). */
export const adminErrors = {
  400: errorAnswer('invalid input; the message and `field` name the field'),
  401: errorAnswer('not logged in'),
  403: errorAnswer('role too low'),
  404: errorAnswer('not found'),
};

/** Who may call: a session or a personal access token. */
export const loggedIn: Array<Record<string, string[]>> = [{ session: [] }, { accessToken: [] }];

/** A page of a list in the envelope: `{items, total, page, page_size}`. */
export const Paged = <T extends TSchema>(item: T) =>
  Envelope(Type.Object({ items: Type.Array(item), total: Type.Integer(), page: Type.Integer(), page_size: Type.Integer() }));

/** `?page=&page_size=` of a list. */
export const PAGING = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: '1-based page' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'rows per page' })),
};
