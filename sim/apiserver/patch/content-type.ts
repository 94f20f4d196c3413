// Maps a PATCH request's Content-Type to the patch flavour it carries.
export type PatchType = 'json' | 'merge' | 'strategic';

const MEDIA_TYPES: Readonly<Record<string, PatchType | 'apply'>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export function patchTypeFromContentType(contentType: string | undefined): PatchType | 'apply' | undefined {
  if (!contentType) return undefined;
  // Parameters such as "; charset=utf-8" do not change the flavour.
  const media = contentType.split(';')[0].trim().toLowerCase();
  return Object.hasOwn(MEDIA_TYPES, media) ? MEDIA_TYPES[media] : undefined;
}
