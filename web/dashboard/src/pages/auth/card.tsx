/** The frame of the signed-out pages: the brand above the page's title and its form. */
import type { ComponentChildren } from 'preact';
import { PageHeader } from '../../ui';

export function AuthCard(props: { title: string; children: ComponentChildren }) {
  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="brand" aria-hidden="true">
          Switchyard
        </p>
        <PageHeader title={props.title} />
        {props.children}
      </div>
    </main>
  );
}
