// Column-definition helpers. Descriptions for name and creationTimestamp are ObjectMeta's
// API docs, which the real server repeats on nearly every table.
import type { ColumnDefinition } from './types.js';

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some ' +
  'resources may allow a client to request the generation of an appropriate name automatically. ' +
  'Name is primarily intended for creation idempotence and configuration definition. Cannot be ' +
  'updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

export const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. ' +
  'It is not guaranteed to be set in happens-before order across separate operations. Clients ' +
  'may not set this value. It is represented in RFC3339 form and is in UTC.\n\n' +
  'Populated by the system. Read-only. Null for lists. More info: ' +
  'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export function col(
  name: string,
  type: string,
  description: string,
  priority = 0,
  format = '',
): ColumnDefinition {
  return { name, type, format, description, priority };
}

/** The leading NAME column; format 'name' tells kubectl which cell identifies the row. */
export const nameColumn = (): ColumnDefinition => col('Name', 'string', NAME_DESCRIPTION, 0, 'name');

/** AGE in built-in printers is a pre-rendered string, not a date. */
export const ageColumn = (): ColumnDefinition => col('Age', 'string', CREATED_DESCRIPTION);

export const containersColumn = (): ColumnDefinition =>
  col('Containers', 'string', 'Names of each container in the template.', 1);

export const imagesColumn = (): ColumnDefinition =>
  col('Images', 'string', 'Images referenced by each container in the template.', 1);

export const selectorColumn = (description: string): ColumnDefinition =>
  col('Selector', 'string', description, 1);
