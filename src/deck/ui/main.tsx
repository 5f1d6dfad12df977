/** The Deck's front end: mounts the app. */
import { render } from 'preact';
import { App } from './app.js';
import './styles/app.css';
import './styles/controls.css';

render(<App />, document.getElementById('deck')!);
