// The model a run uses when nothing names one: its own module so the config display (`ptc config`)
// can name it without loading the provider clients.

export const DEFAULT_MODEL = 'deepseek:deepseek-chat';
