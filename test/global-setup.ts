/**
 * Builds dist/ once, as `npm run build:service` does (tsc, then the service bundle), so process-level tests run the
 * same bundled entry point that `npm start` and the desktop app run. The bundle takes a second or two.
 */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['dist/scripts/bundle-service.js'], { stdio: 'inherit' });
}
