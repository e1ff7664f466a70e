/** Typed access to the plugin's services and configuration (as Strapi's upload plugin does in utils/). */
import type { Core } from '@strapi/strapi';
import type { ImageApiConfig } from './config';
import { CONFIG_PATH, PLUGIN_ID } from './config/constants';
import type services from './services';

type Services = { [Name in keyof typeof services]: ReturnType<(typeof services)[Name]> };

export const getService = <Name extends keyof Services>(strapi: Core.Strapi, name: Name): Services[Name] =>
  strapi.plugin(PLUGIN_ID).service<Services[Name]>(name);

/** The plugin's configuration, validated at boot. */
export const getConfig = (strapi: Core.Strapi): ImageApiConfig => strapi.config.get(CONFIG_PATH);
