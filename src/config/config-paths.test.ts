import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectConfigPath, userConfigPath } from './config-paths.js';

describe('config file locations', () => {
  it('PTC_CONFIG, else XDG_CONFIG_HOME (absolute only), else ~/.config; PTC_HOME does not move it', () => {
    expect(userConfigPath({ HOME: '/home/u', PTC_HOME: '/elsewhere' })).toBe('/home/u/.config/ptc/config.yaml');
    expect(userConfigPath({ HOME: '/home/u', XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/ptc/config.yaml');
    // The XDG rule: a relative XDG_CONFIG_HOME is ignored.
    expect(userConfigPath({ HOME: '/home/u', XDG_CONFIG_HOME: 'rel' })).toBe('/home/u/.config/ptc/config.yaml');
    expect(userConfigPath({ HOME: '/home/u', XDG_CONFIG_HOME: '/xdg', PTC_CONFIG: 'my.yaml' })).toBe(path.resolve('my.yaml'));
    expect(projectConfigPath('/ws')).toBe('/ws/.ptc/config.yaml');
  });
});
