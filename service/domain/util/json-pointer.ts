/** Turns a JSON Pointer (`/groups/0`, as validators report paths) into the dotted form messages use (`groups.0`). */
export function pointerToDotted(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}
