/** Regenerates the configuration table in README.md from the config schema (npm run docs:config). */
import { readFileSync, writeFileSync } from 'node:fs';
import { configReferenceMarkdown } from '../service/config/index.js';
import { replaceConfigSection } from './readme-config.js';

const readme = readFileSync('README.md', 'utf8');
writeFileSync('README.md', replaceConfigSection(readme, configReferenceMarkdown()));
