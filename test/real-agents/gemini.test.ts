import { geminiDriver } from './drivers/gemini.js';
import { defineAgentSuite } from './suite.js';

defineAgentSuite(geminiDriver);
