/** The agents the real-agent tier drives (keys as in versions.json and `entire enable --agent`). */
import type { AgentDriver } from './types.js';
import { claudeCodeDriver } from './claude-code.js';
import { geminiDriver } from './gemini.js';

export const DRIVERS: Record<string, AgentDriver> = {
  'claude-code': claudeCodeDriver,
  gemini: geminiDriver,
};
