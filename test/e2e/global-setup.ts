/** Builds the service and the console once, so every test runs what `npm start` serves. */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  // Emit only, as test/global-setup.ts does: `npm test` type-checked these sources before the unit tests.
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--noCheck'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
}
