import { claudeCodeDriver } from './drivers/claude-code.js';
import { defineAgentSuite } from './suite.js';

defineAgentSuite(claudeCodeDriver);
