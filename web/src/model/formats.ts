// The history formats the core reads, in its detection order. The list is the core's
// (wasm/core/formats/registry.cpp): the build writes it to web/generated/formats.json with
// `isoscope formats --json`, so the page never offers a format the core does not know.
import formats from '../../generated/formats.json';
import type { FormatInfo } from '../core/types';

export const FORMATS: readonly FormatInfo[] = formats;
