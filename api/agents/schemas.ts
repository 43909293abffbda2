import { Type } from '@sinclair/typebox';
import { VOICE_IDS } from '../../domain/agents/agent';
import { languageCodes } from '../../domain/shared/languages';
import { StringEnum } from '../http/schema';

export const CreateAgentBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  language: Type.Optional(StringEnum(languageCodes)),
  voiceId: Type.Optional(StringEnum(VOICE_IDS)),
  greeting: Type.Optional(Type.String({ maxLength: 1000 })),
  lines: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 50 })),
});
