import { openCodeDriver } from './drivers/opencode.js';
import { defineAgentSuite } from './suite.js';

defineAgentSuite(openCodeDriver);
