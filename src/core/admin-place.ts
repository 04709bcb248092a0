/** Where a simulator's admin API is served, and where a caller finds the credentials it expects (messages name them). */
export function adminPlace(o: { adminPath?: string; credentialsAt?: string; apiId?: string; apiKey?: string }): {
  adminPath: string;
  credentialsAt: string;
} {
  const adminPath = o.adminPath ?? '/admin';
  const credentialsAt =
    o.credentialsAt ??
    (o.apiId !== undefined || o.apiKey !== undefined
      ? 'those wallet-sim was started with (--api-id / --api-key)'
      : `GET ${adminPath}/scenario shows them (credentials.api_id and api_key)`);
  return { adminPath, credentialsAt };
}
