// Errors raised while applying a patch. The code mirrors what kube-apiserver answers:
// 400 for a patch document it cannot use, 422 when a well-formed JSON patch cannot be
// applied to this object (failed `test`, path that does not exist, list of lists).
export class PatchError extends Error {
  constructor(
    message: string,
    readonly code: 400 | 422 = 400,
  ) {
    super(message);
    this.name = 'PatchError';
  }
}
