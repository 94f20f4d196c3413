// Object name rules and generateName, with the real validation messages.
import { randomBytes } from 'node:crypto';
import type { StatusCause } from '../http/errors.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** Kinds whose names must be DNS-1123 labels rather than subdomains. */
const labelNamedKinds = new Set(['Namespace', 'Service']);

export function validateName(kind: string, name: string | undefined, custom: boolean): StatusCause[] {
  if (!name) {
    return [
      {
        reason: 'FieldValueRequired',
        message: 'Required value: name or generateName is required',
        field: 'metadata.name',
      },
    ];
  }
  const asLabel = labelNamedKinds.has(kind);
  const max = asLabel ? 63 : 253;
  const re = asLabel ? DNS1123_LABEL : DNS1123_SUBDOMAIN;
  const causes: StatusCause[] = [];
  if (name.length > max) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${name}": must be no more than ${max} characters`,
      field: 'metadata.name',
    });
  }
  // custom resources only need a path-segment-safe name, like the real server
  const ok = custom
    ? !name.includes('/') && !name.includes('%') && name !== '.' && name !== '..'
    : re.test(name);
  if (!ok) {
    const msg = custom ? "may not contain '/' or '%'" : asLabel ? labelMsg : subdomainMsg;
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${name}": ${msg}`,
      field: 'metadata.name',
    });
  }
  return causes;
}

// Same alphabet as apiserver's utilrand.String: no vowels, no confusable characters.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

export function generateName(prefix: string): string {
  const bytes = randomBytes(5);
  let suffix = '';
  for (const b of bytes) suffix += alphabet[b % alphabet.length];
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  return base + suffix;
}
