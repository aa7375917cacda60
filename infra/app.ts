import { App } from 'aws-cdk-lib/core';
import { SocialDataApiStack } from './stack';

/**
 * Environment-agnostic on purpose: `cdk synth` runs offline without credentials, and
 * `cdk deploy` targets the account and region of the caller's profile.
 */
const app = new App();
new SocialDataApiStack(app, 'SocialDataApi', {
  description: 'Social-data extraction API: API Gateway REST + Lambda + DynamoDB',
});
app.synth();
