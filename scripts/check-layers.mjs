#!/usr/bin/env node
/**
 * Fails on an import in src/ that breaks the ground plan of docs/architecture.md ("Rooms"): one
 * that runs upwards through the layers of scripts/layers.mjs, or that closes an import cycle. Part
 * of `npm run lint`.
 *
 * Usage: `node scripts/check-layers.mjs`; prints one line per problem and exits 1 when there are any.
 */
import console from 'node:console';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { checkLayers } from './layer-check.mjs';

const problems = checkLayers(join(dirname(fileURLToPath(import.meta.url)), '..'));
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exitCode = 1;
