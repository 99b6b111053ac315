// Development-only stand-in for the wasm core (ISOSCOPE_MOCK_CORE=1). Never shipped.
import { MockIsoscope } from './mock-core';
import type { CoreFactory } from './types';

export const createCore: CoreFactory = async () => new MockIsoscope();
export const coreKind = 'mock';
