import { openApiDocument } from '../app/utils/api-document.server';
const d = openApiDocument();
console.log(Object.keys(d.paths!).length, JSON.stringify(d).length);
console.log(JSON.stringify(d.paths!['/api/results']).slice(0,800));
console.log(JSON.stringify(d.paths!['/api/generate-blog-title']).slice(0,800));
