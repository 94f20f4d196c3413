// Reserved keys of strategic merge patch.
export const PATCH = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_PREFIX = '$deleteFromPrimitiveList';
export const ORDER_PREFIX = '$setElementOrder';

export function isDirectiveKey(key: string): boolean {
  return (
    key === PATCH || key === RETAIN_KEYS || key.startsWith(DELETE_PREFIX) || key.startsWith(ORDER_PREFIX)
  );
}
