(function(){
  var view=document.getElementById('view'),live=document.getElementById('live'),api=view.dataset.api;
  function tick(){
    fetch(api,{cache:'no-store'}).then(function(r){return r.json();}).then(function(d){
      if(d.html!==undefined&&d.html!==view.dataset.shown){view.innerHTML=d.html;view.dataset.shown=d.html;}
      live.textContent='updated '+new Date().toLocaleTimeString();live.dataset.polls=(+live.dataset.polls||0)+1;
    }).catch(function(e){live.textContent='the server does not answer ('+e+')';}).finally(function(){
      setTimeout(tick,{{ poll_ms }});});
  }
  setTimeout(tick,{{ poll_ms }});
})();