/**
 * The view library: Preact's virtual DOM with htm's tagged templates (no JSX, so no build step but
 * esbuild's bundling). Every page writes `html\`<div>…</div>\`` and uses Preact's hooks.
 */
import htm from 'htm';
import { h, type ComponentChildren, type VNode } from 'preact';

export const html = htm.bind(h) as (strings: TemplateStringsArray, ...values: unknown[]) => VNode;
export type Children = ComponentChildren;
export { render } from 'preact';
export { useEffect, useMemo, useRef, useState } from 'preact/hooks';
